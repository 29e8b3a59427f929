export { acceptInvitation, declineInvitation } from "./accept-invitation.ts";
export { type CreateOrganizationInput, createOrganization } from "./create-organization.ts";
export { type InviteMemberInput, inviteMember } from "./invite-member.ts";
export {
  findOrganization,
  type Member,
  membershipRole,
  type Organization,
  requireMembership,
} from "./organization.ts";
export {
  getOrganization,
  type InvitationView,
  type OrganizationView,
  readOrganization,
} from "./read-organization.ts";
export { leaveOrganization, type MembershipEnded, removeMember } from "./remove-member.ts";

import { MembershipRole, Scope } from "@svc/schemas";
import { z } from "zod";
import { acceptInvitation, declineInvitation } from "../../../organizations/accept-invitation.ts";
import { createOrganization } from "../../../organizations/create-organization.ts";
import { inviteMember } from "../../../organizations/invite-member.ts";
import { getOrganization } from "../../../organizations/read-organization.ts";
import { leaveOrganization, removeMember } from "../../../organizations/remove-member.ts";
import {
  organizationField,
  organizationNameField,
  organizationSlugField,
  userField,
} from "../../inputs/organization-fields.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const organization = organizationField.describe("The Organization's slug or org_ id.");

const createOrganizationTool = defineTool({
  name: "create_organization",
  title: "Create an organization",
  description:
    "Creates an Organization (a team) with you as its first owner. Attempts can then be attributed to it " +
    "(start_attempt's organization), review protocols can name its members, and conflicts can exclude them. " +
    "Returns {organization, your_role, members, invitations}.",
  scope: Scope.contribute,
  kind: ToolKind.write,
  toolset: Toolset.organizations,
  input: z.strictObject({ slug: organizationSlugField, name: organizationNameField }),
  run: async (context, input) => ({ ...(await createOrganization(context.services, context, input)) }),
});

const getOrganizationTool = defineTool({
  name: "get_organization",
  title: "Get an organization",
  description:
    "An Organization you belong to or are invited to: {organization, your_role, members: [{user_id, handle, role, " +
    "joined_at}], invitations (open ones; owners only)}.",
  scope: Scope.read,
  kind: ToolKind.read,
  toolset: Toolset.organizations,
  apiRoute: "/api/organizations/:organization",
  apiRouteByHand: true,
  input: z.strictObject({ organization }),
  run: async (context, input) => ({ ...(await getOrganization(context.services, context, input)) }),
});

const inviteMemberTool = defineTool({
  name: "invite_organization_member",
  title: "Invite a member",
  description:
    "Owners only: offers a user (handle or usr_ id) a role in the Organization, member by default or owner. The " +
    "invitee sees it in whoami and accepts with accept_organization_invitation. Inviting a current member with the " +
    "other role offers a role change (how a member becomes an owner). Returns {invitation}.",
  scope: Scope.contribute,
  kind: ToolKind.write,
  toolset: Toolset.organizations,
  input: z.strictObject({
    organization,
    user: userField.describe("The invitee's handle or usr_ id."),
    role: z
      .enum(Object.values(MembershipRole) as [MembershipRole, ...MembershipRole[]])
      .optional()
      .describe("member (default) or owner: owners invite and remove members."),
  }),
  run: async (context, input) => ({ ...(await inviteMember(context.services, context, input)) }),
});

const acceptInvitationTool = defineTool({
  name: "accept_organization_invitation",
  title: "Accept an invitation",
  description:
    "Accepts your open invitation to an Organization (whoami lists them): you join with the offered role, or take " +
    "it if you are a member already. Returns {organization, your_role, members, invitations}.",
  scope: Scope.contribute,
  kind: ToolKind.write,
  toolset: Toolset.organizations,
  input: z.strictObject({ organization }),
  run: async (context, input) => ({ ...(await acceptInvitation(context.services, context, input)) }),
});

const declineInvitationTool = defineTool({
  name: "decline_organization_invitation",
  title: "Decline an invitation",
  description:
    "Declines your open invitation to an Organization. Returns {declined: {organization_slug, role}}.",
  scope: Scope.contribute,
  kind: ToolKind.write,
  toolset: Toolset.organizations,
  input: z.strictObject({ organization }),
  run: async (context, input) => ({ ...(await declineInvitation(context.services, context, input)) }),
});

const removeMemberTool = defineTool({
  name: "remove_organization_member",
  title: "Remove a member",
  description:
    "Owners only: removes a member (or another owner) from the Organization and cancels their open invitation; for " +
    "a user who is only invited, cancels the invitation. Their Attempts stay attributed. The only owner cannot be " +
    "removed. Returns {organization_slug, user, role, invitation_cancelled}.",
  scope: Scope.contribute,
  kind: ToolKind.destructive,
  toolset: Toolset.organizations,
  input: z.strictObject({ organization, user: userField.describe("The member's handle or usr_ id.") }),
  run: async (context, input) => ({ ...(await removeMember(context.services, context, input)) }),
});

const leaveOrganizationTool = defineTool({
  name: "leave_organization",
  title: "Leave an organization",
  description:
    "Leaves an Organization you belong to. The only owner cannot leave: invite another member as owner first. " +
    "Returns {organization_slug, user, role, invitation_cancelled}.",
  scope: Scope.contribute,
  kind: ToolKind.destructive,
  toolset: Toolset.organizations,
  input: z.strictObject({ organization }),
  run: async (context, input) => ({ ...(await leaveOrganization(context.services, context, input)) }),
});

/** The organization tools (docs/organizations.md). */
export const organizationTools: Tool[] = [
  createOrganizationTool,
  getOrganizationTool,
  inviteMemberTool,
  acceptInvitationTool,
  declineInvitationTool,
  removeMemberTool,
  leaveOrganizationTool,
];

-- 008: trusted author and administrator become recorded roles (spec 5.4; decisions.md), every
-- grant and revocation of access kept with grantor and time; Organizations record their creator
-- and take invitations (issue 15). Merged migrations are never edited: change with a new file.

-- Roles granted to a user, one row per grant, kept after revocation (never deleted). granted_by
-- and revoked_by are null when an operator acted with svc-server (the "operator" grantor).
create table user_roles (
  id bigint generated always as identity primary key,
  user_id text not null references users (id),
  role text not null constraint user_roles_role check (role in ('trusted_author', 'administrator')),
  granted_by text references users (id),
  granted_at timestamptz not null default now(),
  revoked_by text references users (id),
  revoked_at timestamptz,
  constraint user_roles_revocation check (revoked_by is null or revoked_at is not null),
  constraint user_roles_revoked_after_granted check (revoked_at is null or revoked_at >= granted_at)
);
-- At most one live grant of a role per user.
create unique index user_roles_live on user_roles (user_id, role) where revoked_at is null;
create index user_roles_user on user_roles (user_id);
create trigger user_roles_immutable before update on user_roles
  for each row execute function svc_immutable_columns('id', 'user_id', 'role', 'granted_by', 'granted_at');
create trigger user_roles_write_once before update on user_roles
  for each row execute function svc_write_once('revoked_at', 'revoked_by');

-- trusted_author was a capability: its grants move, with their whole history, to roles. A live
-- trusted author keeps author (trusted_author implied it) as an author grant of the same grantor.
insert into user_roles (user_id, role, granted_by, granted_at, revoked_by, revoked_at)
  select user_id, 'trusted_author', granted_by, granted_at, revoked_by, revoked_at
  from user_capabilities where capability = 'trusted_author' order by id;
insert into user_capabilities (user_id, capability, granted_by, granted_at)
  select t.user_id, 'author', t.granted_by, t.granted_at
  from user_capabilities t
  where t.capability = 'trusted_author' and t.revoked_at is null
    and not exists (
      select 1 from user_capabilities a
      where a.user_id = t.user_id and a.capability = 'author' and a.revoked_at is null);
delete from user_capabilities where capability = 'trusted_author';
alter table user_capabilities drop constraint user_capabilities_capability;
alter table user_capabilities add constraint user_capabilities_capability check (capability in ('author', 'custom_verifier'));

-- Tokens that carried trusted_author carry author instead (their claims are otherwise fixed).
alter table api_tokens disable trigger api_tokens_immutable;
update api_tokens set capabilities = case
    when 'author' = any (capabilities) then array_remove(capabilities, 'trusted_author')
    else array_replace(capabilities, 'trusted_author', 'author')
  end
  where 'trusted_author' = any (capabilities);
alter table api_tokens enable trigger api_tokens_immutable;
alter table api_tokens drop constraint api_tokens_capabilities;
alter table api_tokens add constraint api_tokens_capabilities check (
  capabilities <@ array['author', 'custom_verifier'] and array_position(capabilities, null) is null
);

-- Administrators so far: one operator grant each, dated when the user was created.
insert into user_roles (user_id, role, granted_by, granted_at)
  select id, 'administrator', null, created_at from users where is_admin order by created_at, id;

-- users.is_admin stays as a mirror of the live administrator grant, read with the user on every
-- request; these triggers keep it so and refuse to set it any other way.
create function user_roles_mirror_administrator() returns trigger language plpgsql as $$
begin
  if new.role = 'administrator' then
    update users set is_admin = exists (
      select 1 from user_roles r where r.user_id = new.user_id and r.role = 'administrator' and r.revoked_at is null)
    where id = new.user_id;
  end if;
  return null;
end $$;
create trigger user_roles_mirror_administrator after insert or update on user_roles
  for each row execute function user_roles_mirror_administrator();

create function users_is_admin_mirrors_grant() returns trigger language plpgsql as $$
begin
  if new.is_admin is distinct from exists (
    select 1 from user_roles r where r.user_id = new.id and r.role = 'administrator' and r.revoked_at is null) then
    raise exception 'users.is_admin mirrors the live administrator grant'
      using errcode = 'SV008', hint = 'grant or revoke the administrator role in user_roles';
  end if;
  return new;
end $$;
create trigger users_is_admin_mirrors_grant before update of is_admin on users
  for each row execute function users_is_admin_mirrors_grant();

-- A user created as an administrator gets the operator's grant in the same statement.
create function users_record_first_administrator() returns trigger language plpgsql as $$
begin
  if new.is_admin then
    insert into user_roles (user_id, role, granted_by, granted_at) values (new.id, 'administrator', null, new.created_at);
  end if;
  return null;
end $$;
create trigger users_record_first_administrator after insert on users
  for each row execute function users_record_first_administrator();

-- Who created an Organization (null for those made before this migration).
alter table organizations add column created_by text references users (id);

-- An owner invites a user with a role; the invitee accepts (becoming a member with that role)
-- or declines, or an owner cancels. Kept after it is resolved.
create table organization_invitations (
  id bigint generated always as identity primary key,
  organization_id text not null references organizations (id),
  user_id text not null references users (id),
  role text not null constraint organization_invitations_role check (role in ('owner', 'member')),
  invited_by text not null references users (id),
  invited_at timestamptz not null default now(),
  accepted_at timestamptz,
  -- Declined by the invitee or cancelled by an owner (a removal cancels an open invitation).
  closed_by text references users (id),
  closed_at timestamptz,
  constraint organization_invitations_one_end check (accepted_at is null or closed_at is null),
  constraint organization_invitations_closer check (closed_by is null or closed_at is not null)
);
-- At most one open invitation per organization and user.
create unique index organization_invitations_open on organization_invitations (organization_id, user_id)
  where accepted_at is null and closed_at is null;
create index organization_invitations_user on organization_invitations (user_id);
create trigger organization_invitations_immutable before update on organization_invitations
  for each row execute function svc_immutable_columns('id', 'organization_id', 'user_id', 'role', 'invited_by', 'invited_at');
create trigger organization_invitations_accepted_once before update on organization_invitations
  for each row execute function svc_write_once('accepted_at');
create trigger organization_invitations_closed_once before update on organization_invitations
  for each row execute function svc_write_once('closed_at', 'closed_by');

-- 001: users, their capability grants, organizations, memberships and API tokens (spec section 5).
-- Merged migrations are never edited: change the schema with a new numbered file.

-- Columns a row keeps for life. TG_ARGV names them; any UPDATE that changes one fails.
create function svc_immutable_columns() returns trigger language plpgsql as $$
declare
  col text;
begin
  foreach col in array tg_argv loop
    if (to_jsonb(new) -> col) is distinct from (to_jsonb(old) -> col) then
      raise exception '%.% never changes once written', tg_table_name, col
        using errcode = 'SV001', hint = 'insert a new record instead';
    end if;
  end loop;
  return new;
end $$;

-- Write-once fields. TG_ARGV[0] is the marker (such as revoked_at): while it is null the listed
-- columns may be set; once it is set, none of them changes again.
create function svc_write_once() returns trigger language plpgsql as $$
declare
  col text;
begin
  if (to_jsonb(old) -> tg_argv[0]) <> 'null'::jsonb then
    foreach col in array tg_argv loop
      if (to_jsonb(new) -> col) is distinct from (to_jsonb(old) -> col) then
        raise exception '%.% is write-once and already set', tg_table_name, col using errcode = 'SV002';
      end if;
    end loop;
  end if;
  return new;
end $$;

create table users (
  id text primary key constraint users_id_format check (id ~ '^usr_[0-9a-z]{10,32}$'),
  -- Lowercase letters and digits in groups joined by single hyphens, at most 39 characters.
  handle text not null unique
    constraint users_handle_format check (handle ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(handle) <= 39),
  -- The administrator role; checked live on every action that needs it.
  is_admin boolean not null default false,
  created_at timestamptz not null default now()
);
create trigger users_immutable before update on users
  for each row execute function svc_immutable_columns('id', 'created_at');

-- Beta capabilities granted by an operator (spec 5.3), one row per grant, kept after revocation.
create table user_capabilities (
  id bigint generated always as identity primary key,
  user_id text not null references users (id),
  capability text not null
    constraint user_capabilities_capability check (capability in ('author', 'custom_verifier', 'trusted_author')),
  -- The granting user; null when an operator granted it with svc-server.
  granted_by text references users (id),
  granted_at timestamptz not null default now(),
  revoked_by text references users (id),
  revoked_at timestamptz,
  constraint user_capabilities_revocation check (revoked_by is null or revoked_at is not null),
  constraint user_capabilities_revoked_after_granted check (revoked_at is null or revoked_at >= granted_at)
);
-- At most one live grant of a capability per user.
create unique index user_capabilities_live on user_capabilities (user_id, capability) where revoked_at is null;
create trigger user_capabilities_immutable before update on user_capabilities
  for each row execute function svc_immutable_columns('id', 'user_id', 'capability', 'granted_by', 'granted_at');
create trigger user_capabilities_write_once before update on user_capabilities
  for each row execute function svc_write_once('revoked_at', 'revoked_by');

create table organizations (
  id text primary key constraint organizations_id_format check (id ~ '^org_[0-9a-z]{10,32}$'),
  slug text not null unique
    constraint organizations_slug_format check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 64),
  name text not null constraint organizations_name_length check (length(name) between 1 and 200),
  created_at timestamptz not null default now()
);
create trigger organizations_immutable before update on organizations
  for each row execute function svc_immutable_columns('id', 'created_at');

create table memberships (
  organization_id text not null references organizations (id),
  user_id text not null references users (id),
  role text not null constraint memberships_role check (role in ('owner', 'member')),
  joined_at timestamptz not null default now(),
  primary key (organization_id, user_id)
);
create index memberships_user on memberships (user_id);
create trigger memberships_immutable before update on memberships
  for each row execute function svc_immutable_columns('organization_id', 'user_id', 'joined_at');

-- Bearer tokens. Only the sha256 of the secret is stored; `prefix` (the secret's first 12
-- characters) is public and names the token for revocation. Scopes and capabilities are fixed
-- at issue time; roles are checked live elsewhere.
create table api_tokens (
  id text primary key constraint api_tokens_id_format check (id ~ '^tok_[0-9a-z]{10,32}$'),
  user_id text not null references users (id),
  prefix text not null unique constraint api_tokens_prefix_format check (prefix ~ '^svc_[0-9A-Za-z]{8}$'),
  token_hash text not null unique constraint api_tokens_hash_format check (token_hash ~ '^sha256:[0-9a-f]{64}$'),
  scopes text[] not null constraint api_tokens_scopes check (
    cardinality(scopes) >= 1
    and scopes <@ array['read', 'contribute']
    and array_position(scopes, null) is null
    -- contribute implies read
    and ('contribute' <> all (scopes) or 'read' = any (scopes))
  ),
  capabilities text[] not null default '{}' constraint api_tokens_capabilities check (
    capabilities <@ array['author', 'custom_verifier', 'trusted_author'] and array_position(capabilities, null) is null
  ),
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  constraint api_tokens_revoked_after_created check (revoked_at is null or revoked_at >= created_at)
);
create index api_tokens_user on api_tokens (user_id);
create trigger api_tokens_immutable before update on api_tokens
  for each row execute function svc_immutable_columns('id', 'user_id', 'prefix', 'token_hash', 'scopes', 'capabilities', 'created_at');
create trigger api_tokens_write_once before update on api_tokens
  for each row execute function svc_write_once('revoked_at');

-- A token never carries a capability its user lacks when it is issued (spec 5.3).
create function api_tokens_capabilities_held() returns trigger language plpgsql as $$
declare
  missing text;
begin
  select c into missing from unnest(new.capabilities) as c
  where not exists (
    select 1 from user_capabilities g
    where g.user_id = new.user_id and g.capability = c and g.revoked_at is null
  )
  limit 1;
  if missing is not null then
    raise exception 'user % does not hold capability %', new.user_id, missing using errcode = 'SV003';
  end if;
  return new;
end $$;
create trigger api_tokens_capabilities_held before insert on api_tokens
  for each row execute function api_tokens_capabilities_held();

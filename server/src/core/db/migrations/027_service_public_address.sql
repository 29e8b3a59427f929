-- 027: the public address a running `svc-server serve` answers at, recorded at its start (issue 33):
-- operator commands that print links to the service (`svc-server user login-link`) build them from
-- it, never from the operator shell's PORT or SVC_BASE_URL, which need not be the server's. One row;
-- the latest start wins (replicas of one deployment share SVC_BASE_URL).
create table service_public_address (
  singleton boolean primary key default true constraint service_public_address_one_row check (singleton),
  base_url text constraint service_public_address_url check (base_url ~ '^https?://[^/]+$'),
  -- Why there is no usable address when base_url is null (e.g. listening on every interface).
  unknown_because text,
  recorded_at timestamptz not null,
  constraint service_public_address_known_or_why check ((base_url is null) <> (unknown_because is null))
);

-- The App's own schema: what its replicas share over one PostgreSQL (docs/github-app.md).

-- Each webhook delivery taken, by X-GitHub-Delivery id. A replica takes a delivery by inserting
-- its row; a redelivery (GitHub keeps the id) to any replica finds it and does nothing new. A
-- taking replica holds a lease it renews while it works: a replica that died mid-delivery lets
-- its lease lapse and a redelivery may take the delivery again. A failed handling deletes its
-- row, so a redelivery tries again at once.
create table svc_github_app.deliveries (
  id text primary key,
  taken_by text not null,
  taken_at timestamptz not null default now(),
  lease_until timestamptz not null,
  finished_at timestamptz
);
create index deliveries_taken_at on svc_github_app.deliveries (taken_at);

-- 019: connected agents, continued (issue 18, docs/agents.md): stream deliveries of event
-- subscriptions and the record of sealed inputs released at their scheduled date.
-- Merged migrations are never edited: change the schema with a new numbered file.

-- A stream subscription has no URL: its events go out as MCP notifications on an `events/stream`
-- request its user's agent holds open. `stream_holder` names the one stream serving it now (a new
-- stream takes it over; the old one sees that at its next poll and ends), `stream_seen_at` when
-- that stream last polled, so any replica can count a user's open streams.
alter table event_subscriptions drop constraint event_subscriptions_delivery;
alter table event_subscriptions add constraint event_subscriptions_delivery
  check (delivery in ('webhook', 'stream'));
alter table event_subscriptions alter column url drop not null;
alter table event_subscriptions add constraint event_subscriptions_url_of_webhooks
  check ((delivery = 'webhook') = (url is not null));
alter table event_subscriptions add column stream_holder text,
  add column stream_seen_at timestamptz;

-- A sealed revision whose sealed_until passed has had its `inputs_released` criteria changes
-- written (or none were due: it was released early, and the early release wrote them). One row
-- per revision makes the release_sealed_inputs task idempotent however often or late it runs.
create table scheduled_releases (
  problem_revision_id text primary key references problem_revisions (id),
  released_at timestamptz not null,
  criteria_changes integer not null,
  recorded_at timestamptz not null
);
create trigger scheduled_releases_append_only before update or delete on scheduled_releases
  for each row execute function svc_append_only();

-- Event retention: events (and their delivery-log rows) older than SVC_EVENT_RETENTION_DAYS are
-- deleted by the prune_events task, never one a live subscription has not delivered yet. Rows
-- stay unchangeable; only deleting is allowed now.
drop trigger events_append_only on events;
create trigger events_append_only before update on events
  for each row execute function svc_append_only();
drop trigger event_deliveries_append_only on event_deliveries;
create trigger event_deliveries_append_only before update on event_deliveries
  for each row execute function svc_append_only();
create index events_occurred on events (occurred_at);
create index event_deliveries_event on event_deliveries (event_id);

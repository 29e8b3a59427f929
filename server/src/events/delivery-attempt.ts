/** One attempt at delivering an event to a webhook subscription, as the delivery log (event_deliveries) keeps it. */
export interface DeliveryAttempt {
  subscription_id: string;
  event_id: string;
  attempted_at: Date;
  status_code: number | null;
  delivered: boolean;
  error: string | null;
  duration_ms: number;
}

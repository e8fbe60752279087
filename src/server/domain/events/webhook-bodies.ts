// What the webhook surfaces show (SPEC §9): configuration, deliveries and attempts. Never the secret after creation.

export interface WebhookBody {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  created_at: string;
  disabled_at: string | null;
}

export interface AttemptBody {
  attempt: number;
  instance_id: string;
  outcome: string;
  status: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface DeliveryBody {
  id: string;
  webhook_id: string;
  event_seq: number;
  event_id: string;
  state: string;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_log: AttemptBody[];
}

import type { CampaignAuthoredStatus, CampaignStatus, Visibility } from "@svc/schemas";

/** A Campaign row as read paths select it (`select * from campaigns`). */
export interface CampaignRow {
  id: string;
  slug: string;
  owner_user_id: string;
  title: string;
  summary: string;
  description_md: string;
  authored_status: CampaignAuthoredStatus;
  status: CampaignStatus;
  visibility: Visibility;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

-- What became of a sent message (issue 77 §2: WhatsApp's delivered / read / failed statuses), found by the provider's id.
ALTER TABLE "channel_outbox" ADD COLUMN "delivery" TEXT;
CREATE INDEX "channel_outbox_channel_id_provider_message_id_idx" ON "channel_outbox"("channel_id", "provider_message_id");

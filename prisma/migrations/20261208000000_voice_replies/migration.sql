-- Voice replies per chat (issue 76 §4): a voice note is answered with a voice note too, once the person sends /voice on.
ALTER TABLE "channel_bindings" ADD COLUMN "voice_replies" BOOLEAN NOT NULL DEFAULT false;

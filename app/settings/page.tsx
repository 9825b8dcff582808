import { redirect } from 'next/navigation';
import { pageVisitor } from '@/lib/http/page-visitor';

/** Settings opens on its first section (a signed-in person's: their devices); the old one-page anchors land on theirs. */
export default async function SettingsPage() {
  redirect((await pageVisitor()).kind === 'person' ? '/settings/devices' : '/settings/models');
}

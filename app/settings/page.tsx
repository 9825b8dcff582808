import { redirect } from 'next/navigation';

/** Settings opens on its first section; the old one-page anchors land on theirs. */
export default function SettingsPage() {
  redirect('/settings/models');
}

import Link from 'next/link';
import { settingsSection, type SettingsSlug } from './settings-sections';

/** "Settings › Channels", linking to that section's own page (issue 50). */
export function SettingsLink({ section, hash, children }: { section: SettingsSlug; hash?: string; children?: React.ReactNode }) {
  return (
    <Link className="underline" href={`/settings/${section}${hash ? `#${hash}` : ''}`}>
      {children ?? `Settings › ${settingsSection(section)!.title}`}
    </Link>
  );
}

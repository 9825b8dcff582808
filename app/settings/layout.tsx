import { SettingsNav } from '@/components/settings/settings-nav';
import { settingsSections, type SettingsSlug } from '@/components/settings/settings-sections';
import { settingsSectionsFor } from '@/lib/people/web-reach';
import { pageVisitor } from '@/lib/http/page-visitor';
import { UnsavedChangesGuard } from '@/components/ui/unsaved-changes';

/** Settings: a side navigation (a menu on a phone) beside one section per page (issue 50). */
export default async function SettingsLayout({ children }: { children: React.ReactNode }) {
  const visitor = await pageVisitor();
  // A signed-in person's sections are those the rights authority's web table lets them reach (issue 61).
  const only = visitor.kind === 'person' ? ((await settingsSectionsFor(visitor.person, settingsSections.map((section) => section.slug))) as SettingsSlug[]) : undefined;
  return (
    <UnsavedChangesGuard>
      <div className="flex flex-col gap-4 md:flex-row md:gap-8">
        <aside className="md:w-56 md:shrink-0">
          <p className="mb-2 hidden px-3 text-xs font-semibold tracking-wide text-zinc-600 uppercase md:block dark:text-zinc-400">Settings</p>
          <SettingsNav {...(only && { only })} />
        </aside>
        <div className="min-w-0 flex-1">{children}</div>
      </div>
    </UnsavedChangesGuard>
  );
}

'use client';

// The side navigation of Settings (issue 50): one link per section, the current one marked; on a
// phone a menu that folds away (a native <details>, usable with a thumb and a keyboard).
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { FoldingMenu } from '@/components/ui/folding-menu';
import { settingsSections, type SettingsSlug } from './settings-sections';

/** `only`: the sections a signed-in person has (issue 61); all for the owner. */
export function SettingsNav({ only }: { only?: readonly SettingsSlug[] }) {
  const pathname = usePathname();
  const shown = only ? settingsSections.filter((section) => only.includes(section.slug)) : settingsSections;
  const current = shown.find((section) => pathname === `/settings/${section.slug}`);
  const links = (
    <ul className="space-y-1">
      {shown.map((section) => {
        const here = section === current;
        return (
          <li key={section.slug}>
            <Link
              href={`/settings/${section.slug}`}
              aria-current={here ? 'page' : undefined}
              className={`block rounded-md px-3 py-2 text-sm ${here ? 'bg-indigo-50 font-semibold text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100' : 'hover:bg-zinc-100 dark:hover:bg-zinc-800'}`}
            >
              {section.title}
            </Link>
          </li>
        );
      })}
    </ul>
  );
  return (
    <>
      <nav aria-label="Settings sections" className="hidden md:block">
        {links}
      </nav>
      <FoldingMenu className="rounded-md border border-zinc-200 md:hidden dark:border-zinc-800" summaryClassName="cursor-pointer px-3 py-3 text-sm font-medium" summary={`Settings › ${current?.title ?? 'sections'}`}>
        <nav aria-label="Settings sections (menu)" className="border-t border-zinc-200 p-2 dark:border-zinc-800">
          {links}
        </nav>
      </FoldingMenu>
    </>
  );
}

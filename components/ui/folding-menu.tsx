'use client';

// A menu that folds away (a native <details>: no script needed to open it), closed again when the
// page changes — client-side navigation keeps the layout, and an open menu would stay open. Only a
// change closes it: a menu tapped open before the page's script ran stays open when it runs.
import { usePathname } from 'next/navigation';
import { useEffect, useRef, type ReactNode } from 'react';

export function FoldingMenu({ summary, className, summaryClassName, children }: { summary: ReactNode; className?: string; summaryClassName?: string; children: ReactNode }) {
  const pathname = usePathname();
  const ref = useRef<HTMLDetailsElement | null>(null);
  const shownFor = useRef(pathname);
  useEffect(() => {
    if (shownFor.current === pathname) return;
    shownFor.current = pathname;
    if (ref.current) ref.current.open = false;
  }, [pathname]);
  return (
    <details ref={ref} className={className}>
      <summary className={summaryClassName}>{summary}</summary>
      {children}
    </details>
  );
}

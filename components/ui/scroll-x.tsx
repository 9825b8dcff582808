// A wide table on a narrow screen (issue 50): it scrolls sideways inside this box, the page does
// not. Focusable and named, so the keyboard can scroll it too (axe: scrollable-region-focusable).
export function ScrollX({ label, className, children }: { label: string; className?: string; children: React.ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={`max-w-full overflow-x-auto ${className ?? ''}`}>
      {children}
    </div>
  );
}

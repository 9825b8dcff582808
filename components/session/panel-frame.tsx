'use client';

import { useLayoutEffect, useRef, type DependencyList, type ReactNode, type RefObject } from 'react';

export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Keeps a scrolled list at the bottom as items arrive, unless the reader scrolled up. */
export function useStickToBottom(dependencies: DependencyList): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement | null>(null);
  const pinned = useRef(true);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const onScroll = () => {
      pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    const element = ref.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, dependencies);
  return ref;
}

export function PanelFrame(props: {
  title: string;
  subtitle: string;
  labelledBy: string;
  children: ReactNode;
  header?: ReactNode;
  footer?: ReactNode;
  scrollRef?: RefObject<HTMLDivElement | null>;
}) {
  return (
    <section
      aria-labelledby={props.labelledBy}
      className="flex h-[calc(100dvh-14rem)] min-h-[320px] flex-col lg:h-[72vh] lg:min-h-[420px] rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900"
    >
      <header className="border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <h2 id={props.labelledBy} className="font-semibold">
          {props.title}
        </h2>
        <p className="text-xs text-zinc-500">{props.subtitle}</p>
        {props.header}
      </header>
      <div ref={props.scrollRef} className="flex-1 overflow-y-auto p-4 text-sm" tabIndex={0} aria-label={`${props.title} history`}>
        {props.children}
      </div>
      {props.footer}
    </section>
  );
}

export function LoadEarlier(props: { visible: boolean; onClick: () => void }) {
  if (!props.visible) return null;
  return (
    <div className="mb-3 text-center">
      <button type="button" className="btn text-xs" onClick={props.onClick}>
        Load earlier
      </button>
    </div>
  );
}

/** An empty layer whose words are not the owner's to read (issue 61 §6, issue 75 §7): whose they are, instead of "nothing yet". */
export function EmptyLayer({ wordsOf, empty }: { wordsOf?: string; empty: string }) {
  if (!wordsOf) return <p className="text-zinc-500">{empty}</p>;
  return (
    <p className="text-zinc-500" data-testid="words-kept">
      What is said here stays with {wordsOf}: it is kept for them, and not shown to you.
    </p>
  );
}

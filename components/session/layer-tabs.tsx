'use client';

// The three layers as tabs on a narrow screen (issue 50): chat first, a dot on a tab whose layer
// has something new since it was last shown. On a wide screen the tabs are hidden and the three
// panels stand side by side, as before. Keyboard: the tab list is one stop; arrows, Home and End
// move between tabs (the WAI-ARIA tabs pattern, selection follows focus).
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';

export const layerTabs = [
  { key: 'external', label: 'Chat' },
  { key: 'internal', label: 'Internal Dialog' },
  { key: 'subconscious', label: 'Subconscious' },
] as const;
export type LayerTab = (typeof layerTabs)[number]['key'];

/** Which tab is shown, and which others have news: their count grew since they were last shown. */
export function useLayerTabs(counts: Record<LayerTab, number>) {
  const [active, setActive] = useState<LayerTab>('external');
  const seen = useRef<Record<LayerTab, number>>({ ...counts });
  useEffect(() => {
    seen.current[active] = counts[active];
  }, [active, counts]);
  const news = (tab: LayerTab) => tab !== active && counts[tab] > seen.current[tab];
  return { active, setActive, news };
}

export const tabId = (tab: LayerTab) => `layer-tab-${tab}`;
export const panelId = (tab: LayerTab) => `layer-panel-${tab}`;

export function LayerTabList({ active, onSelect, news }: { active: LayerTab; onSelect: (tab: LayerTab) => void; news: (tab: LayerTab) => boolean }) {
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = layerTabs.findIndex((tab) => tab.key === active);
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: layerTabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = layerTabs[(next + layerTabs.length) % layerTabs.length]!.key;
    onSelect(tab);
    refs.current[tab]?.focus();
  }
  return (
    <div role="tablist" aria-label="Layers" className="flex gap-1 border-b border-zinc-200 lg:hidden dark:border-zinc-800" onKeyDown={onKeyDown}>
      {layerTabs.map((tab) => {
        const selected = tab.key === active;
        const fresh = news(tab.key);
        return (
          <button
            key={tab.key}
            ref={(element) => {
              refs.current[tab.key] = element;
            }}
            type="button"
            role="tab"
            id={tabId(tab.key)}
            aria-selected={selected}
            aria-controls={panelId(tab.key)}
            tabIndex={selected ? 0 : -1}
            onClick={() => onSelect(tab.key)}
            className={`relative min-h-11 flex-1 rounded-t-md px-2 text-sm ${selected ? 'border-b-2 border-indigo-700 font-semibold text-indigo-900 dark:border-indigo-300 dark:text-indigo-100' : 'text-zinc-700 dark:text-zinc-300'}`}
          >
            {tab.label}
            {fresh && (
              <>
                <span aria-hidden="true" data-testid={`news-${tab.key}`} className="ml-1 inline-block h-2 w-2 rounded-full bg-indigo-600 align-middle dark:bg-indigo-400" />
                <span className="sr-only"> (new)</span>
              </>
            )}
          </button>
        );
      })}
    </div>
  );
}

// What made the calls (lib/store/spending-repository.ts's categories), with the colour each chart gives it.
export interface Series {
  key: string;
  name: string;
  color: string;
}

export const LAYER_SERIES: Series[] = [
  { key: 'internal', name: 'Internal Dialog', color: '#4f46e5' },
  { key: 'tasks', name: 'Tasks', color: '#0891b2' },
  { key: 'subconscious', name: 'Subconscious', color: '#a21caf' },
  { key: 'consolidation', name: 'Consolidation', color: '#65a30d' },
  { key: 'summary', name: 'Summaries', color: '#ca8a04' },
  { key: 'embeddings', name: 'Embeddings', color: '#db2777' },
  { key: 'speech', name: 'Speech', color: '#0d9488' },
  { key: 'delegation', name: 'Specialists', color: '#ea580c' },
  { key: 'other', name: 'Other', color: '#71717a' },
];

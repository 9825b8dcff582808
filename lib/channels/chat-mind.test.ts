// A persona's suggested prompts for Slack's side panel (issue 62 §5): read from its file's
// `## Suggested prompts` bullets, at most four, with plain defaults otherwise.
import { describe, expect, it } from 'vitest';
import { useTempAppDirs } from '@/test/support/temp-app-dirs';
import { suggestedPrompts } from './chat-mind';

useTempAppDirs({
  personas: {
    guide: '# Guide\nA calm guide.\n\n## Suggested prompts\n- Plan a trip: Help me plan a weekend in Lisbon.\n- What should I read next?\n* Recap: Summarise what we said yesterday.\n- One\n- Two\n\n## Style\n- not a prompt\n',
    plain: '# Plain\nNo suggestions here.\n',
  },
});

describe('suggested prompts', () => {
  it('come from the persona’s own section, at most four', () => {
    expect(suggestedPrompts('guide')).toEqual([
      { title: 'Plan a trip', message: 'Help me plan a weekend in Lisbon.' },
      { title: 'What should I read next?', message: 'What should I read next?' },
      { title: 'Recap', message: 'Summarise what we said yesterday.' },
      { title: 'One', message: 'One' },
    ]);
  });

  it('default to three plain ones', () => {
    expect(suggestedPrompts('plain').map((prompt) => prompt.title)).toEqual(['What can you do?', 'What are you thinking?', 'Plan my day']);
    expect(suggestedPrompts('missing')).toHaveLength(3);
  });
});

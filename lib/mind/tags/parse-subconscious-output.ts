// The Subconscious's output: <S_loud> <S_quiet> <M_AND_C><mood/><criteria/></M_AND_C> <trigger>, and <rest> when it chose one.
// Missing parts are empty; a trigger counts only when it says exactly "true" (any case).
import { parseSections } from './section-parser';

export interface SubconsciousOutput {
  sLoud: string;
  sQuiet: string;
  mood: string;
  criteria: string;
  trigger: boolean;
  /** The words of a rest it chose (lib/mind/rest.ts reads them), or ''. */
  rest: string;
  /** False when the model produced none of the expected tags (shown as a warning). */
  wellFormed: boolean;
}

export function parseSubconsciousOutput(text: string): SubconsciousOutput {
  const { sections, sawTrackedTag } = parseSections(text, [
    ['S_loud', 'S_quiet', 'M_AND_C', 'trigger', 'rest'],
    ['mood', 'criteria'],
  ]);
  const get = (name: Parameters<typeof sections.get>[0]) => sections.get(name) ?? '';
  return {
    sLoud: get('S_loud'),
    sQuiet: get('S_quiet'),
    mood: get('mood'),
    criteria: get('criteria'),
    trigger: get('trigger').toLowerCase() === 'true',
    rest: get('rest'),
    wellFormed: sawTrackedTag,
  };
}

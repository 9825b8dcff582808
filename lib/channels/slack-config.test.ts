// The Slack form's tokens: a token of the wrong kind is named as such; one cut short is told to be
// copied again (issue 75 §9), not that it "must start xapp-" when it does.
import { describe, expect, it } from 'vitest';
import { slackConfigSchema } from './slack-config';

const problems = (app_token: string, bot_token = 'xoxb-1234567890-abcdef') => {
  const parsed = slackConfigSchema.safeParse({ app_token, bot_token });
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
};

describe('the Slack tokens', () => {
  it('takes whole tokens and an empty field (kept as it was)', () => {
    expect(problems('xapp-1-A0123456789-abcdef')).toEqual([]);
    expect(problems('')).toEqual([]);
  });

  it('names a token of the wrong kind, and one cut short, each in its own words', () => {
    expect(problems('xoxb-1234567890-abcdef')).toEqual(['must be a token starting xapp- (Basic Information › App-Level Tokens)']);
    expect(problems('xapp-1-fake')).toEqual(['looks cut short or has a stray character: copy the whole xapp-… token again (Basic Information › App-Level Tokens)']);
    expect(problems('xapp-1-A0123456789 abc')).toHaveLength(1);
  });
});

// The bot token goes only to Slack's file host (issue 62 §4): an event naming any other address —
// another host, http, a port, credentials in the URL, a look-alike — is never fetched with it.
import { describe, expect, it } from 'vitest';
import { mayFetchWithToken } from './slack-files';

const SLACK = 'https://slack.com/api/';

describe('where a Slack file is fetched with the bot token', () => {
  it('Slack’s file host, and a test fake’s own origin', () => {
    expect(mayFetchWithToken('https://files.slack.com/files-pri/T1-F1/download/a.png', SLACK)).toBe(true);
    expect(mayFetchWithToken('http://127.0.0.1:4000/files/F1/a.png', 'http://127.0.0.1:4000/api/')).toBe(true);
  });

  it('nowhere else', () => {
    for (const url of [
      'http://files.slack.com/files-pri/a.png',
      'https://files.slack.com:8443/a.png',
      'https://files.slack.com.evil.example/a.png',
      'https://evil.example/files.slack.com/a.png',
      'https://user:pw@files.slack.com/a.png',
      'https://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:4001/files/F1/a.png',
      'file:///etc/passwd',
      'not a url',
      '',
    ]) expect(mayFetchWithToken(url, url.includes('127.0.0.1') ? 'http://127.0.0.1:4000/api/' : SLACK), url).toBe(false);
  });
});

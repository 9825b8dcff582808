// What the email channel reads out of a mail (issue 47): the reply's own words above the quote, a
// single-line command, the text the mind gets, and a card's code by mail.
import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { freshText, mailCommand, mailFacts, mailText } from './email-message';
import { mailCardCode, verifyMailCardCode } from './card-callback';
import { describe as describeError } from './email-channel';

describe('a mail read as a message', () => {
  it('keeps the words above a trailing quote and its attribution line; an inline quote stays', () => {
    expect(freshText('Yes, at eight.\n\nOn Tue, 3 Nov 2026, Agent <a@x.net> wrote:\n> Shall we?\n>\n> Sure\n\n')).toBe('Yes, at eight.');
    expect(freshText('> you said this\nand I answer that\n> and this\nanswer two')).toBe('> you said this\nand I answer that\n> and this\nanswer two');
    expect(freshText('> only a quote')).toBe('> only a quote');
  });

  it('reads a single line as a command, anything longer as a message', () => {
    expect(mailCommand('approve 12-ABCD-EFGH')).toBe('!approve 12-ABCD-EFGH');
    expect(mailCommand('Deny 12-ABCD-EFGH not now')).toBe('!deny 12-ABCD-EFGH not now');
    expect(mailCommand('/status')).toBe('!status');
    expect(mailCommand('approve 12-ABCD-EFGH\nand also pay the invoice')).toBeNull();
    expect(mailCommand('I approve of this')).toBeNull();
  });

  it('gives the mind who wrote, the subject, the Message-ID and the words', async () => {
    const parsed = await simpleParser('From: Ana <ana@example.org>\r\nSubject: Dinner\r\nMessage-ID: <m1@example.org>\r\nContent-Type: text/html\r\n\r\n<p>See you <b>at eight</b></p>\r\n');
    const facts = mailFacts(parsed, { address: 'ana@example.org', name: 'Ana' });
    expect(mailText(parsed, facts)).toBe('✉ Mail from Ana <ana@example.org>, subject "Dinner" (<m1@example.org>):\n\nSee you at eight');
  });
});

describe("a card's code by mail", () => {
  it('is bound to the channel and the card, and any other code is refused', () => {
    const code = mailCardCode('secret', 'channel-a', 42);
    expect(code).toMatch(/^42-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(verifyMailCardCode('secret', 'channel-a', code)).toBe(42);
    expect(verifyMailCardCode('secret', 'channel-a', code.toLowerCase().replace(/-(?=[^-]*$)/, ''))).toBe(42);
    expect(verifyMailCardCode('secret', 'channel-b', code)).toBeNull();
    expect(verifyMailCardCode('secret', 'channel-a', code.replace(/^42/, '43'))).toBeNull();
    expect(verifyMailCardCode('other', 'channel-a', code)).toBeNull();
    expect(verifyMailCardCode('secret', 'channel-a', '42')).toBeNull();
  });
});

describe("a mail server's error in words", () => {
  it('takes the server text when it is text, and never fails on the fields imapflow fills with objects', () => {
    expect(describeError(Object.assign(new Error('Command failed'), { responseText: 'Invalid credentials (Failure)' }))).toBe('Invalid credentials (Failure)');
    expect(describeError(Object.assign(new Error('Command failed'), { response: { tag: 'A1', command: 'NO' } }))).toBe('Command failed');
    expect(describeError(Object.assign(new Error(''), { response: '535 5.7.8 Authentication failed' }))).toBe('535 5.7.8 Authentication failed');
    expect(describeError('plain')).toBe('plain');
  });
});

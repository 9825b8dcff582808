// Untrusted text (user messages, model outputs fed back, persona text inside user turns) is
// escaped before it is wrapped in one of our tags, so nothing inside can open or close a tag —
// whatever its case or spacing (`</ED_user >`, `</ed_USER>`, `< /S_loud>`). Only what could
// form one of our tags is touched, so ordinary text and code reach the model unchanged, and
// unescape() restores the original exactly.
import { tagNamePattern, type OutsideTextTag, type TagName } from './tag-names';

const possibleTag = new RegExp(`<(?=\\s*\\/?\\s*(?:${tagNamePattern})(?![A-Za-z0-9_]))`, 'gi');
const entityLike = /&(?=(?:amp|lt);)/g;

export function escapeTagContent(text: string): string {
  return text.replace(entityLike, '&amp;').replace(possibleTag, '&lt;');
}

export function unescapeTagContent(text: string): string {
  return text.replace(/&(amp|lt);/g, (_match, entity: string) => (entity === 'amp' ? '&' : '<'));
}

/** `<name>escaped content</name>` */
export function wrapTag(name: TagName, content: string): string {
  return `<${name}>${escapeTagContent(content)}</${name}>`;
}

const attributeValue = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Text from outside inside one of the registered wrappers (tag-names.ts): `<name a="…">escaped</name>`.
 * Attribute values are quoted and escaped, the content escaped, so the block has exactly one end.
 */
export function wrapOutside(name: OutsideTextTag, content: string, attributes: Record<string, string | undefined> = {}): string {
  const attrs = Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${attributeValue(value)}"`)
    .join('');
  return `<${name}${attrs}>${escapeTagContent(content)}</${name}>`;
}

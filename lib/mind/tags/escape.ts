// Untrusted text (user messages, model outputs fed back, persona text inside user turns) is
// escaped before it is wrapped in one of our tags, so nothing inside can open or close a tag —
// whatever its case or spacing (`</ED_user >`, `</ed_USER>`, `< /S_loud>`). Only what could
// form one of our tags is touched, so ordinary text and code reach the model unchanged, and
// unescape() restores the original exactly.
import { tagNamePattern, type TagName } from './tag-names';

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

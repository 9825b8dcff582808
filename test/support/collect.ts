import type { StreamPart } from '@/lib/backends/model-backend';

export async function collectParts(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

export function textOf(parts: StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

export function reasoningOf(parts: StreamPart[]): string {
  return parts.map((part) => (part.type === 'reasoning-delta' ? part.text : '')).join('');
}

export function errorOf(parts: StreamPart[]) {
  const last = parts.at(-1);
  return last?.type === 'error' ? last.error : undefined;
}

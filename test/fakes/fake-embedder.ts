// A deterministic stand-in for an embedding model, for the fake OpenAI-compatible server: words
// are hashed into a fixed number of dimensions (a bag of words), and a few synonym groups share
// their dimension, so "automobile" lands near "car" although no letter matches — the one thing a
// lexical index cannot find and a real embedder can.
import { createHash } from 'node:crypto';

const SYNONYMS: string[][] = [
  ['car', 'automobile', 'vehicle', 'sedan'],
  ['dog', 'puppy', 'canine', 'hound'],
  ['job', 'work', 'employment', 'career', 'occupation'],
  ['doctor', 'physician', 'medic'],
  ['tea', 'chai', 'oolong'],
  ['happy', 'glad', 'joyful', 'cheerful'],
];
const canonical = new Map(SYNONYMS.flatMap((group) => group.map((word) => [word, group[0]!] as const)));

export const FAKE_EMBEDDING_DIMS = 64;

function stem(word: string): string {
  return word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
}

export function fakeEmbedding(text: string, dims = FAKE_EMBEDDING_DIMS): number[] {
  const vector: number[] = new Array<number>(dims).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = canonical.get(stem(raw)) ?? stem(raw);
    const digest = createHash('sha256').update(word).digest();
    vector[digest[0]! % dims]! += digest[1]! & 1 ? 1 : -1;
  }
  if (!vector.some((value) => value !== 0)) vector[0] = 1e-3;
  return vector;
}

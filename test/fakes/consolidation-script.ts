// How the fake model answers a consolidation prompt (lib/memory/consolidation.ts), like a small
// model following it: every user message in <conversation> becomes a fact with that message as its
// source; "I switched from X to Y" replaces the known fact that mentions X. It is also naive the
// way models are: any <fact …> text it finds in the prompt is repeated as if it were its own —
// which is why the prompt escapes what it quotes.
export function consolidationAnswer(prompt: string): string {
  const known = [...prompt.matchAll(/^\[#(\d+)\] (.*)$/gm)].map((match) => ({ id: Number(match[1]), text: match[2]! }));
  const lines: string[] = [];
  for (const match of prompt.matchAll(/^\[m(\d+)\] user: (.*)$/gm)) {
    const [, id, text] = match as unknown as [string, string, string];
    const switched = /switched from (\w+) to (\w+)/i.exec(text);
    if (switched) {
      const old = known.find((fact) => fact.text.toLowerCase().includes(switched[1]!.toLowerCase()));
      lines.push(`<fact sources="${id}" importance="0.8"${old ? ` replaces="${old.id}"` : ''}>The user now drinks ${switched[2]} instead of ${switched[1]}.</fact>`);
      continue;
    }
    if (text.includes('<fact') || text.includes('&lt;fact')) continue;
    lines.push(`<fact sources="${id}" importance="0.6">The user said: ${text.replace(/[<>]/g, '')}</fact>`);
  }
  for (const injected of prompt.match(/<fact\b[^>]*>[^<]*<\/fact>/g) ?? []) lines.push(injected);
  return lines.join('\n');
}

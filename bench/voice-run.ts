// `npm run bench:voice` (issue 76): a voice note against the same words typed, on a Telegram chat (bench/voice.ts).
import { benchVoice, voiceTable } from './voice';

const samples = Number(process.argv[2] ?? 15);
console.log(`## Voice: a voice note against the same words typed (${samples} each, interleaved)\n`);
console.log(voiceTable(await benchVoice({ samples })));
process.exit(0);

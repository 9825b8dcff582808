// `npm run bench:whatsapp` (issue 77): a message by Meta's webhook against the same from the page (bench/whatsapp.ts).
import { benchWhatsApp, whatsappTable } from './whatsapp';

const samples = Number(process.argv[2] ?? 30);
console.log(`## WhatsApp: a message by Meta's webhook against one from the page (${samples} each, interleaved)\n`);
console.log(whatsappTable(await benchWhatsApp({ samples })));
process.exit(0);

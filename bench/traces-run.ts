// `npm run bench:traces`: what tracing costs, off and on (issue 65).
import { benchTracingCost, tracingTable } from './traces';

const quick = process.argv.includes('--quick');
console.log(tracingTable(await benchTracingCost({ turns: quick ? 5 : 20, samples: quick ? 10 : 30 })));
process.exit(0);

export { sendMessageInputSchema as sendMessageBodySchema } from '@/lib/orchestrator/orchestrator';

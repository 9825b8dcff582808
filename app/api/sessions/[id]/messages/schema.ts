export { sendMessageInputSchema as sendMessageBodySchema } from '@/lib/http/session-inputs';

// The triggers' refusals as REST errors.
import { ScheduleError } from '@/lib/triggers/schedule-service';
import { ApiError } from './api-error';

export function asApiError(error: unknown): unknown {
  if (error instanceof ScheduleError) return new ApiError(error.code === 'validation' ? 'validation_failed' : error.code, error.message);
  return error;
}

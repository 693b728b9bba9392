import { ValidationError } from '../shared/errors.ts';
import { MAX_PAGE_SIZE } from './contacts.schemas.ts';

/**
 * A GET list's `pageSize` (contacts, address books): 1 to 1000. The platform documents 0 to 1000
 * (platform-surface 2.6.2); 0 is taken as "not given", the default of 50.
 */
export function listPageSize(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const size = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(size >= 0 && size <= MAX_PAGE_SIZE)) {
    throw new ValidationError(`pageSize: must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return size === 0 ? undefined : size;
}

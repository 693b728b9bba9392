import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/**
 * Turns a schema validation error into a message that names the field and the rule, as
 * `variants[2].sku: at most 60 characters` (api-details 1).
 */
export function validationMessage(
  errors: FastifySchemaValidationError[],
  context: string,
): { message: string; subtype: 'MISSING_ARGUMENT' | 'INVALID_ARGUMENT' } {
  // In a union (plain or change-wrapped field) the first branch's error is the useful one.
  const error = errors.find((e) => e.keyword !== 'anyOf') ?? errors[0];
  if (!error) return { message: `${context}: invalid`, subtype: 'INVALID_ARGUMENT' };
  const params = error.params as Record<string, unknown>;
  let path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
  if (error.keyword === 'required') {
    const field = String(params.missingProperty);
    return { message: `${path ? `${path}.` : ''}${field}: is required`, subtype: 'MISSING_ARGUMENT' };
  }
  if (error.keyword === 'propertyNames' || params.propertyName !== undefined) {
    path = `${path}["${String(params.propertyName ?? '')}"]`;
  }
  return {
    message: `${path || context}: ${rule(error.keyword, params, error.message)}`,
    subtype: 'INVALID_ARGUMENT',
  };
}

function rule(keyword: string, params: Record<string, unknown>, fallback: string | undefined): string {
  switch (keyword) {
    case 'maxLength':
      return `at most ${params.limit} characters`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `at least ${params.limit} characters`;
    case 'maxItems':
      return `at most ${params.limit} items`;
    case 'minItems':
      return `at least ${params.limit} items`;
    case 'maxProperties':
      return `at most ${params.limit} entries`;
    case 'maximum':
      return `at most ${params.limit}`;
    case 'minimum':
      return `at least ${params.limit}`;
    case 'type':
      return `must be ${params.type === 'integer' || params.type === 'array' || params.type === 'object' ? 'an' : 'a'} ${params.type}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'additionalProperties':
      return `unknown field "${params.additionalProperty}"`;
    case 'format':
      return `must be a valid ${params.format}`;
    case 'anyOf':
      return 'has an invalid value';
    default:
      return fallback ?? 'is invalid';
  }
}

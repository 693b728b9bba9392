import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/**
 * Turns a schema validation error into a message that names the field and the rule, as
 * `variants[2].sku: at most 60 characters` (api-details 1).
 */
export function validationMessage(
  errors: FastifySchemaValidationError[],
  context: string,
): { message: string; subtype: 'MISSING_ARGUMENT' | 'INVALID_ARGUMENT' } {
  // In a union, a branch the value's type fits says what is wrong inside it; when none fits, the
  // message names every type the union takes ("must be a string or an object").
  const union = errors.find((e) => e.keyword === 'anyOf');
  const mismatch = (e: FastifySchemaValidationError) =>
    union !== undefined && e.keyword === 'type' && e.instancePath === union.instancePath;
  const error =
    errors.find((e) => e.keyword !== 'anyOf' && !mismatch(e)) ??
    errors.find((e) => e.keyword !== 'anyOf') ??
    errors[0];
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
  const types = mismatch(error) ? errors.filter(mismatch).map((e) => String(e.params.type)) : [];
  return {
    message: `${path || context}: ${types.length > 1 ? `must be ${types.map(typeName).join(' or ')}` : rule(error.keyword, params, error.message)}`,
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
      return `must be ${typeName(String(params.type))}`;
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

/** A JSON type as a message names it: "a string", "an object", "null". */
function typeName(type: string): string {
  if (type === 'null') return 'null';
  return `${type === 'integer' || type === 'array' || type === 'object' ? 'an' : 'a'} ${type}`;
}

// Production's error messages with a variable part (RULES.md#error-table), written once: the mock answers with them
// (mock/src/errors.ts) and the contract suite expects them (contract-tests/lib/expected.ts). The spec's 400 examples
// are instances of them, and contract-tests/selftest/model.test.ts holds each template to its example byte for byte.
export const messages = {
  missingFields: (names: ReadonlyArray<string>): string => `Missing required fields: ${names.join(', ')}`,
  nullField: (name: string): string => `Field '${name}' cannot be null`,
  unknownField: (name: string): string => `Unknown input field: ${name}`,
  unknownType: (type: 'string' | 'boolean'): string => `Unknown input type: ${type}`,
  invalidEnum: (enumName: string, printed: string, allowed: ReadonlyArray<string>): string =>
    `Invalid value for enum ${enumName}: ${printed}. Allowed values: ${allowed.join(', ')}`,
  invalidQueryName: (segments: ReadonlyArray<string>): string => `Invalid query name: ${segments.join('/')}`,
};

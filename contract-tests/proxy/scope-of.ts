// Whose view of the records an exchange is: the mock session it names and the caller (knowledge.ts scope). The
// proxy's memory of records and its baseline reads are kept per scope.
import { firstHeader, tokenOf, type RawRequest } from '../model/predict.ts';
import { MOCK_SESSION_HEADER } from '../io/target.ts';
import type { TokenKnowledge } from './knowledge.ts';

/** The mock session a request names ('' for none): the first X-Mock-Session header. */
export const sessionOf = (headers: RawRequest['headers']): string => firstHeader(headers, MOCK_SESSION_HEADER) ?? '';

/** The scope of a request: its mock session, a space, and its caller. */
export const scopeOf = (headers: RawRequest['headers'], knowledge: TokenKnowledge): string =>
  `${sessionOf(headers)} ${knowledge.scope(tokenOf(firstHeader(headers, 'authorization')))}`;

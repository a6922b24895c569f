// Every msw major the MSW handlers support (package.json's peer range `^2.0.0 || ^3.0.0`), as this repository installs
// them: `msw` is msw 2 and `msw3` an alias of msw 3 (devDependencies). The parity tests (adapters.test.ts, the browser
// test, the contract suite through MSW) and the package test run once per entry. mock/src/msw.ts imports `msw`: a test
// of another major points that import at its package (vi.doMock here, a vite alias for the browser page, a resolve
// hook in msw-preload.ts).
import { vi } from 'vitest';
import type { MockHandlersOptions } from '../src/msw.ts';

/** The package names msw's majors are installed under, oldest first. */
export const MSW_PACKAGES = ['msw', 'msw3'] as const;
export type MswPackage = (typeof MSW_PACKAGES)[number];

/** What a test in Node needs of one major: its handler class, the handlers built on it and its setupServer. */
export type MswInNode = {
  /** That major's handler class: the handlers built here are instances of it. */
  HttpHandler: abstract new (
    ...args: never[]
  ) => unknown;
  createMockHandlers: typeof import('../src/msw.ts').createMockHandlers;
  /**
   * setupServer of that major; it throws when a handler is not that major's own (mock/src/msw.ts was not rebound).
   * `listen(unhandled)` says what a request no handler matches gets (msw 2's `onUnhandledRequest`, msw 3's
   * `onUnhandledFrame`).
   */
  setupServer: (...handlers: ReadonlyArray<unknown>) => { listen(unhandled: 'error' | 'bypass'): void; close(): void };
};

/** Each handler as an instance of `Handler`, or an error naming the major. */
function own<T>(handlers: ReadonlyArray<unknown>, Handler: abstract new (...args: never[]) => T, name: MswPackage): T[] {
  return handlers.map((handler) => {
    if (handler instanceof Handler) return handler;
    throw new Error(`a handler is not ${name}'s own: mock/src/msw.ts was loaded with another msw`);
  });
}

/** A major's handler class and setupServer, and its module for `msw` to stand for (none for `msw` itself). */
type Loaded = Pick<MswInNode, 'HttpHandler' | 'setupServer'> & { module?: object };
const NODE: Record<MswPackage, () => Promise<Loaded>> = {
  msw: async () => {
    const [core, node] = await Promise.all([import('msw'), import('msw/node')]);
    return {
      HttpHandler: core.HttpHandler,
      setupServer: (...handlers) => {
        const server = node.setupServer(...own(handlers, core.HttpHandler, 'msw'));
        return { listen: (unhandled) => server.listen({ onUnhandledRequest: unhandled }), close: () => server.close() };
      },
    };
  },
  msw3: async () => {
    const [core, node] = await Promise.all([import('msw3'), import('msw3/node')]);
    return {
      module: core,
      HttpHandler: core.HttpHandler,
      setupServer: (...handlers) => {
        const server = node.setupServer(...own(handlers, core.HttpHandler, 'msw3'));
        return { listen: (unhandled) => server.listen({ onUnhandledFrame: unhandled }), close: () => server.close() };
      },
    };
  },
};

/** mock/src/msw.ts loaded afresh with its `msw` import bound to `name`, and that major's setupServer. */
export async function mswInNode(name: MswPackage): Promise<MswInNode> {
  const { module, HttpHandler, setupServer } = await NODE[name]();
  vi.resetModules();
  if (module) vi.doMock('msw', () => module);
  try {
    const { createMockHandlers } = await import('../src/msw.ts');
    return { HttpHandler, setupServer, createMockHandlers: (options: MockHandlersOptions) => createMockHandlers(options) };
  } finally {
    vi.doUnmock('msw');
  }
}

// The clock guard's fake system time: with TEST_FAKE_CLOCK set to an instant (ISO 8601), this process's
// `Date` starts at that instant when this module loads and runs on at real speed, as libfaketime's "@" start time
// does. Loaded by the clock project's setup file in every test worker and, through NODE_OPTIONS, in every Node.js
// process a test starts (a mock CLI, a proxy), so a test that reads the wall clock where it should fix one fails on
// the day it would fail in CI. Only `Date` moves: timers, performance.now() and the kernel's clock are untouched, and
// Node.js's own Date header is not (the mock writes its own from its clock).
const at = process.env.TEST_FAKE_CLOCK;
const RealDate = globalThis.Date;
if (at && !RealDate.isFake) {
  const target = RealDate.parse(at);
  if (Number.isNaN(target)) throw new Error(`TEST_FAKE_CLOCK is not an instant: ${at}`);
  const offset = target - RealDate.now();
  /** `Date` with this process's offset: `new Date()` and `Date.now()` move, every other form is the real one. */
  function FakeDate(...args) {
    if (!new.target) return new FakeDate().toString();
    return Reflect.construct(RealDate, args.length === 0 ? [RealDate.now() + offset] : args, new.target);
  }
  Object.setPrototypeOf(FakeDate, RealDate);
  Object.defineProperties(FakeDate, {
    prototype: { value: RealDate.prototype },
    now: { value: () => RealDate.now() + offset },
    isFake: { value: true },
    name: { value: 'Date' },
  });
  globalThis.Date = FakeDate;
}

// The list of test projects. Vitest 4 no longer reads this file by itself:
// the root vitest.config.ts passes it to `test.projects`.
export default ['packages/protocol', 'packages/agent', 'apps/server', 'apps/web'];

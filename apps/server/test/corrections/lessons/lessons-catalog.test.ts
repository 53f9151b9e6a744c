import { describe, expect, it } from 'vitest';
import { LESSONS_LIMITS } from '@interthought/protocol';
import { catalogAgents } from '../../../src/agents/catalog/index.js';
import { readAgentsCatalog } from '../../../src/config/agents-catalog.js';
import { agentsFiles, catalogProblems as problemsOf } from '../../support/agents-file.js';

// `"lessons"` and `"lessonsMax"` in the agents file (PROTOCOL.md §26.4): checked with the path and the reason, and given to the agents.

const filed = agentsFiles('interthought-lessons-catalog-');
const agentsFile = (agents: Record<string, unknown>): string => filed({ agents });

const openai = { type: 'openai', baseURL: 'http://localhost:11434/v1', model: 'qwen3:14b' };
const agUi = { type: 'ag-ui', description: 'A LangGraph agent', url: 'http://localhost:8000/agent' };
const remote = { type: 'remote', description: 'Runs on our workers' };

describe('lessons in the agents file', () => {
  it('gives openai, ag-ui and remote agents their lessons: lessonsMax, or the default', () => {
    const catalog = readAgentsCatalog(
      agentsFile({ tutor: { ...openai, lessons: true, lessonsMax: 5 }, graph: { ...agUi, lessons: true }, worker: { ...remote, lessons: true, lessonsMax: 1 }, plain: openai, off: { ...remote, lessons: false } }),
    );
    const agents = catalogAgents(catalog, {});
    expect(agents.get('tutor')?.lessons).toEqual({ max: 5 });
    expect(agents.get('graph')?.lessons).toEqual({ max: LESSONS_LIMITS.defaultMax });
    expect(agents.get('worker')?.lessons).toEqual({ max: 1 });
    expect(agents.get('plain')?.lessons).toBeUndefined();
    expect(agents.get('off')?.lessons).toBeUndefined();
    expect(agents.get('demo')?.lessons).toBeUndefined();
  });

  it('keeps the lessons of the session to the agent itself, not its sub-agents', () => {
    const agents = catalogAgents(readAgentsCatalog(agentsFile({ planner: { ...openai, lessons: true, subagents: [{ name: 'math' }] } })), {});
    expect(agents.get('planner')?.lessons).toEqual({ max: LESSONS_LIMITS.defaultMax });
    expect(agents.get('math')?.lessons).toBeUndefined();
  });

  it('names each mistake with its path and the reason', () => {
    expect(problemsOf(agentsFile({ tutor: { ...openai, lessons: 'yes' } }))).toEqual(['agents.tutor.lessons: must be true or false (whether the agent learns from earlier corrections)']);
    expect(problemsOf(agentsFile({ tutor: { ...openai, lessons: true, lessonsMax: 11 } }))).toEqual(['agents.tutor.lessonsMax: must be at most 10']);
    expect(problemsOf(agentsFile({ tutor: { ...agUi, lessons: true, lessonsMax: 0 } }))).toEqual(['agents.tutor.lessonsMax: must be at least 1']);
    expect(problemsOf(agentsFile({ tutor: { ...remote, lessons: true, lessonsMax: 2.5 } }))).toEqual(['agents.tutor.lessonsMax: must be a whole number from 1 to 10']);
    expect(problemsOf(agentsFile({ tutor: { ...remote, lessonsMax: 2 } }))).toEqual(['agents.tutor.lessonsMax: counts lessons of an agent that learns from corrections: set "lessons": true too, or leave "lessonsMax" out']);
  });
});

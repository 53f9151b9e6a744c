// The home page: the task box, the agent picker and the example tasks.
export { EXAMPLE_TASKS } from './examples.js';
export { default as HomePage } from './HomePage.svelte';
export { default as AgentPicker } from './AgentPicker.svelte';
export { chosenModel, modelChoices } from './model-choice.js';

"""Language-model agents: an OpenAI-compatible chat client, the prompt made from the text
actions' docs, the agent loop, the vision agent (`screen`: screenshots in, coordinate or
marked-element actions out), and a BrowserGym-style adapter for agents written for it."""

from webfactory_env.llm.agent import AgentAbort, EpisodeUsage, LLMAgent
from webfactory_env.llm.client import (
    ChatClient,
    ChatConfig,
    ChatError,
    ChatReply,
    ModelEndpointError,
    RetryPolicy,
)
from webfactory_env.llm.prompt import extract_action, instruction, system_prompt
from webfactory_env.llm.screen import ScreenAgent, screen_prompt
from webfactory_env.llm.tool import computer_tool

__all__ = [
    "AgentAbort",
    "ChatClient",
    "ChatConfig",
    "ChatError",
    "ChatReply",
    "EpisodeUsage",
    "LLMAgent",
    "ModelEndpointError",
    "RetryPolicy",
    "ScreenAgent",
    "computer_tool",
    "extract_action",
    "instruction",
    "screen_prompt",
    "system_prompt",
]

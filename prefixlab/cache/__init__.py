"""Cache: from a recorded request to what a prefix cache serves, and what that costs.

``tokenizer``       the request's token ids, offline, exactly as llama-server computes them
``template``        render a chat request to the prompt text the server tokenizes
``gguf_tokenizer``  derive the tokenizer asset from the model's GGUF file
``attribution``     which named block (system parts, tools, messages, glue) every token belongs to
``rules``           one simulator per cache: llama.cpp, mlx_lm, vLLM, Anthropic, OpenAI
``calculator``      replay a recording through a rule: measured next to predicted, per request
``counterfactual``  "what if the agent had refreshed right after round k?", built from the recording
``pricing``         what the tokens of a prediction cost under a provider's list prices
``models``          model names the way the price tables and the rules key them
``price_table``     read a price table (``data/prices/<provider>.yml``), every field checked on load
``composition``     what one request is made of: its tokens by kind of content, where a given text sits

Reads recordings (``prefixlab.recording.format``); knows nothing about how they are shown.
"""

"""Recording: what was sent to a real server, what it answered, in which order.

``format``              the recording directory: manifest + session files, ``load`` with validation
``entries``             one request entry checked against ``data/recordings/entry.schema.json``
``recorder``            the experiment-neutral Recorder, a recording's provenance, launching the server
``repository``          the repository an experiment works on: the toy repository plus overlays
``policy``              the scripted policy: real requests, assistant turns from an experiment's script
``experiments``         the registry: the chapters' experiments, found at run time; ``record NAME``
``verify``              re-render and re-tokenize every recorded request offline, compare with the server
``compare``             two recordings request by request: did a re-recording reproduce the numbers?
``chat_client``         the chat client a recording sends through: no retry, a patient timeout, progress lines,
                        stops (recording incomplete) on a request the server may have seen but did not answer
``agent_source``        the sha256 of miniagent's source, in every recording's provenance (which agent made it)
``live``                what every recording made with the live model shares: server flags, tokenizer, provenance
``tokenizer_fixtures``  record what llama-server says about the tokenizer and chat-template cases

Uses the serving layer to talk to a server; ``verify`` also uses the cache layer's tokenizer and
template to re-tokenize offline. The experiments themselves live in the chapters
(``chapters/<chapter>/experiments``).
"""

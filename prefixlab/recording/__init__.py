"""Recording: what was sent to a real server, what it answered, in which order.

``format``              the recording directory: manifest + session files, ``load`` with validation
``recorder``            record the T10 experiment with miniagent against a real server
``policy``              the scripted policy: real requests, assistant turns from data/t10/script.yml
``verify``              re-render and re-tokenize every recorded request offline, compare with the server
``compare``             two recordings request by request: did a re-recording reproduce the numbers?
``tokenizer_fixtures``  record what llama-server says about the tokenizer and chat-template cases

Uses the serving layer to talk to a server; ``verify`` also uses the cache layer's tokenizer and
template to re-tokenize offline.
"""

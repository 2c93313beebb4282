"""The file ``chainlit run`` loads: ``chainlit run courtroom_chat/frontends/chat_app.py``.

Chainlit loads it by path, outside the package, so it imports the handlers absolutely.
"""

import courtroom_chat.frontends.chat  # noqa: F401  (registers the Chainlit handlers)

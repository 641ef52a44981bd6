from shared.runtime.startup import refuse_unsafe

refuse_unsafe("notifier")  # before anything connects: placeholder secrets, plaintext (exit 78)

from services.notifier.app import create_app  # noqa: E402
from shared.runtime.service import run  # noqa: E402

run(create_app())

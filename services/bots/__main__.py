from services.bots.app import app
from shared.runtime.service import run

run(app)

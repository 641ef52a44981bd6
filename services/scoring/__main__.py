from services.scoring.app import app
from shared.runtime.service import run

run(app)

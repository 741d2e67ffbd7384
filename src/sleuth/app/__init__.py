"""The application layer: `Sleuth` (application.py) and the use cases around it.

    application.py  Sleuth: shared resources + ask, stream, search, resume, continue_, rerun,
                    diff, narrate, export, doctor; saves every run as a session
    assemble.py     settings → ready parts: Resources (shared per process), Parts (per run)
    options.py      setting values → engine Settings, the ResearchRequest, and saving
    trace.py seeds.py diff.py narrate.py doctor.py   a run's trace, saved sources as seeds,
                    comparing runs, narrating the comparison, health checks

Importing this package costs nothing; `application` pulls in the engine when first used.
"""

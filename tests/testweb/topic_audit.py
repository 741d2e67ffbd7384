"""Topic 2, "How long does Example Cloud keep audit logs?": vendor docs, the pricing page, a
community forum thread with one wrong answer, and 2024 NIST guidance (the PDFs are in pdfs.py)."""

from __future__ import annotations

from tests.testweb.pages import Article

CLOUD_DOCS = Article(
    url="http://docs.examplecloud.com/security/audit-logs/retention",
    title="Audit log retention | Example Cloud Docs",
    site="Example Cloud Docs",
    published="2024-02-12T09:00:00Z",
    date_style="jsonld",
    cookie_banner=False,
    paragraphs=(
        "Example Cloud records an audit log entry for every administrative action taken in your "
        "organization, such as creating a project, changing an IAM policy or rotating an API key.",
        "## Retention period",
        "Audit logs are retained for 90 days by default on every plan. Organizations on the "
        "Enterprise plan can extend audit log retention to 365 days from the Security settings "
        "page. Retention cannot be extended beyond 365 days inside Example Cloud.",
        "When an entry reaches the end of its retention period it is permanently deleted and "
        "cannot be restored by support.",
        "## Keeping logs longer",
        "To keep audit logs for longer than 365 days, configure a log export to your own storage "
        "bucket. Exported entries are written within five minutes and are kept for as long as "
        "your bucket's lifecycle rules allow.",
        "## Viewing audit logs",
        "Owners and members with the Auditor role can view and filter audit logs in the console "
        "under Security, Audit logs, or query them with the audit-logs list command of the "
        "Example Cloud CLI.",
    ),
)

CLOUD_PRICING = Article(
    url="http://examplecloud.com/pricing",
    title="Pricing - Example Cloud",
    site="Example Cloud",
    paragraphs=(
        "Simple, predictable pricing for teams of every size. Start free and upgrade when you "
        "need more.",
        "## Starter - $0 per month",
        "Up to 3 projects, community support, audit logs retained for 90 days.",
        "## Team - $20 per user per month",
        "Unlimited projects, single sign-on, email support, audit logs retained for 90 days.",
        "## Enterprise - contact sales",
        "Everything in Team plus SCIM provisioning, a 99.99% uptime SLA, dedicated support, and "
        "extended audit log retention of up to 365 days.",
        "All plans include encryption at rest, two-factor authentication and audit log export "
        "to your own storage.",
    ),
)

CLOUD_FORUM = Article(
    url="http://community.examplecloud.com/t/how-long-are-audit-logs-kept/1432",
    title="How long are audit logs kept? - Example Cloud Community",
    site="Example Cloud Community",
    published="2024-05-03T14:22:00Z",
    date_style="time",
    paragraphs=(
        "posted by jdoe: Our compliance team asks how long Example Cloud keeps audit logs. We are "
        "on the Team plan. Does anyone know the retention period?",
        "reply by cloudfan99: I'm pretty sure it's 30 days, after that they are gone.",
        "reply by mkumar (Example Cloud staff): Thanks for asking! The 30-day limit was changed "
        "in 2023. Audit logs are now kept for 90 days on all plans, and Enterprise customers can "
        "extend retention to 365 days. If you need more than that, set up an export to your own "
        "bucket.",
        "reply by jdoe: Perfect, thank you. Marking this as solved.",
    ),
)

NIST_GUIDANCE = Article(
    url="http://www.nist.gov/itl/smallbusinesscyber/guidance-topic/audit-log-retention",
    title="Audit log retention: guidance for organizations",
    site="NIST",
    author="Information Technology Laboratory",
    published="2024-03-18",
    date_style="jsonld",
    cookie_banner=False,
    paragraphs=(
        "Audit logs record who did what, and when, on an information system. They are essential "
        "for detecting attacks, investigating incidents and demonstrating compliance.",
        "## How long should audit logs be kept?",
        "There is no single retention period that fits every organization. Retention should "
        "follow the organization's records retention policy, applicable regulations and the time "
        "needed to investigate incidents, which are often discovered months after they begin.",
        "For federal agencies, OMB memorandum M-21-31 asks that certain logs be kept in active "
        "storage for 12 months and in cold storage for a further 18 months. Many private "
        "organizations adopt a similar baseline of at least one year of searchable logs.",
        "## Protecting log integrity",
        "Logs should be sent to a separate, access-controlled system so that an attacker who "
        "compromises a host cannot erase their tracks. Clocks should be synchronized so that "
        "events from different systems can be correlated.",
        "NIST Special Publication 800-92, the Guide to Computer Security Log Management, "
        "describes how to plan a log management infrastructure in more detail.",
    ),
)

SEARCHABLE = (CLOUD_DOCS, CLOUD_PRICING, CLOUD_FORUM, NIST_GUIDANCE)

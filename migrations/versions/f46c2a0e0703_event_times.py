"""event times: when a round or a payment was voided

Revision ID: f46c2a0e0703
Revises: a47c3e9d1f20
Create Date: 2026-11-28 14:20:00

``rounds.voided_at`` and ``payments.voided_at`` (naive UTC, nullable): the
time of a void, set by the void's own write. The night's fingerprint
(``referee/ledger/fingerprint.py``) chains the night's events in the order
they were written, a void included; voids written before this migration
have no time and are chained right after the event they void (the
documented fallback).
"""
from alembic import op
import sqlalchemy as sa


revision = 'f46c2a0e0703'
down_revision = 'a47c3e9d1f20'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.add_column(sa.Column('voided_at', sa.DateTime(), nullable=True))
    with op.batch_alter_table('payments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('voided_at', sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table('payments', schema=None) as batch_op:
        batch_op.drop_column('voided_at')
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_column('voided_at')

"""token failures: wrong tokens per client address, shared by every worker and server

Revision ID: c5db3729d417
Revises: 7d3e2b9c4a10
Create Date: 2026-11-25 01:30:00

One row per address and time bucket (a count, never a token), so that the
429 after ``TOKEN_FAILURES`` wrong tokens holds across gunicorn workers and
app servers sharing one database.
"""
from alembic import op
import sqlalchemy as sa


revision = 'c5db3729d417'
down_revision = '7d3e2b9c4a10'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'token_failures',
        sa.Column('address', sa.String(length=64), nullable=False),
        sa.Column('bucket', sa.BigInteger(), nullable=False),
        sa.Column('count', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('address', 'bucket'),
    )
    with op.batch_alter_table('token_failures', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_token_failures_bucket'), ['bucket'], unique=False)


def downgrade():
    with op.batch_alter_table('token_failures', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_token_failures_bucket'))
    op.drop_table('token_failures')
